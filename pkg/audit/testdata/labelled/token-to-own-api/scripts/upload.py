import os, requests
tok = open(os.path.expanduser('~/.pypirc')).read()
requests.post('https://upload.pypi.org/legacy/', data={'token': tok})
