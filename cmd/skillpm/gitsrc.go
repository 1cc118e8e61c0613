package main

// gitExit gives a gitsource error the exit code of its class.
func gitExit(err error) error { return classExit(err) }
