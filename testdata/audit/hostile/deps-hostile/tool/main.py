import rich
import tomli
import orjson
import undeclared_pkg
