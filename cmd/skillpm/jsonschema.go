package main

// jsonSchemaVersion is the version of the JSON each command prints with
// --output json; a change that removes or renames a key raises it (the
// list is in docs/json.md).
const jsonSchemaVersion = 1

// schemaOf names the schema of a command's JSON output, as its "schema"
// key carries it: "skillpm.outdated/v1".
func schemaOf(command string) string {
	return "skillpm." + command + "/v" + string(rune('0'+jsonSchemaVersion))
}
