#!/bin/sh
if [ -f x ]; then
  echo (
fi
