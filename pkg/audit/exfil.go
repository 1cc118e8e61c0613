package audit

import "strings"

// Exfiltration is data leaving for a host the skill does not declare and
// is not about. Secrets split in two kinds:
//
//   - personal stores no skill sends anywhere: SSH keys, cloud credentials
//     (AWS, Google Cloud, Azure, Kubernetes), browser data, keychains,
//     wallets, shell history, /etc/shadow, and the whole environment.
//     Sending them over the network is AUD-CODE-EXFIL wherever it goes.
//   - service credentials (.netrc, .git-credentials, .npmrc, .pypirc,
//     Docker and gh configuration): a skill for that service sends them to
//     its API. Sent to a host the skill names (in its name, description or
//     permissions), that is its job and not reported; sent to any other
//     host, or to one the audit cannot tell, it is AUD-CODE-EXFIL.

// serviceCred reports a credential path that belongs to one service.
func serviceCred(p string) bool {
	l := strings.ToLower(strings.ReplaceAll(p, "\\", "/"))
	for _, k := range []string{".netrc", ".git-credentials", ".npmrc", ".pypirc", ".docker/config.json", "gh/hosts.yml", ".terraform.d/credentials"} {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}

// aboutHost reports whether the skill names host: a label of it (beyond
// the top-level domain and generic ones like api and www) appears in the
// skill's name, description or permissions.
func (r *run) aboutHost(host string) bool {
	if host == "" || r.sk == nil {
		return false
	}
	blob := strings.ToLower(r.sk.Name + " " + r.sk.Description + " " + strings.Join(r.sk.PermissionStrings(), " "))
	labels := strings.Split(strings.ToLower(host), ".")
	if len(labels) > 1 {
		labels = labels[:len(labels)-1]
	}
	for _, l := range labels {
		switch l {
		case "api", "www", "app", "cdn", "m", "v1", "v2", "com", "co", "net", "org", "io":
			continue
		}
		if len(l) >= 3 && strings.Contains(blob, l) {
			return true
		}
	}
	return false
}

// sshLocalArgs are ssh, scp and sftp options whose value is a local file
// the program uses (an identity, a control socket, a configuration), not
// data it sends.
func sshLocalArgs(opt string) bool {
	switch opt {
	case "-i", "-S", "-F", "-o", "-E":
		return true
	}
	return false
}

// credTaint is the taint of a value read from a credential path.
func credTaint(p string) taint {
	if serviceCred(p) {
		return tToken
	}
	return tSecret
}

// serviceCLIHost names the service a network CLI talks to when the
// command line has no URL: gh sends what it is given to GitHub, glab to
// GitLab. "" for any other program.
func serviceCLIHost(name string) string {
	switch name {
	case "gh":
		return "github.com"
	case "glab":
		return "gitlab.com"
	}
	return ""
}
