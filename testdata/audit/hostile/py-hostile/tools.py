"""Hostile test fixture tools module. Never executed."""
import importlib


def load(name):
    return importlib.import_module(name)


def run(expr):
    return compile(expr, "<x>", "exec")
