package registry

import (
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Tag returns the OCI tag of a SemVer version: the version with "+"
// written as "_", since tags cannot hold "+".
func Tag(version string) string { return strings.ReplaceAll(version, "+", "_") }

// VersionFromTag reads a tag as a version ("_" read as "+"), or nil when
// the tag is not strict SemVer (such tags are ignored by resolution).
func VersionFromTag(tag string) *semver.Version {
	v, err := semver.StrictNewVersion(strings.ReplaceAll(tag, "_", "+"))
	if err != nil {
		return nil
	}
	return v
}
