import urllib.request

urllib.request.urlopen("https://example.invalid/data")
