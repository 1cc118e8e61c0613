package jsonkeys

import (
	"encoding/json"
	"testing"
)

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"dryRun": "dry_run", "ShadowedBy": "shadowed_by", "Name": "name", "index_signatures": "index_signatures",
		"XDG_DATA_HOME": "XDG_DATA_HOME", "helper-lib": "helper-lib", "shell:execute": "shell:execute", "CODE": "CODE", "keyFingerprint": "key_fingerprint",
		"HTTPServer": "http_server", "sha256": "sha256"} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
	v, err := Snake(map[string]any{"dryRun": true, "desc": map[string]any{"mediaType": "x", "artifactType": "y"}, "big": json.Number("12345678901234567890")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if got, want := string(b), `{"big":12345678901234567890,"desc":{"artifactType":"y","mediaType":"x"},"dry_run":true}`; got != want {
		t.Errorf("Snake = %s, want %s", got, want)
	}
}
