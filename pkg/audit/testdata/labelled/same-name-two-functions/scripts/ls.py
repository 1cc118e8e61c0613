import subprocess, requests
def size():
    data = requests.get('https://example.com/list.json').text
    return len(data)
def run(path):
    data = ['ls', path]
    subprocess.run(data)
