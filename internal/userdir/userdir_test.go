package userdir

import (
	"path/filepath"
	"testing"
)

func TestHomeAndConfigHome(t *testing.T) {
	tests := []struct {
		name       string
		goos       string
		env        map[string]string
		home, conf string
	}{
		{"linux", "linux", map[string]string{"HOME": "/home/u"}, "/home/u", filepath.Join("/home/u", ".config")},
		{"linux xdg", "linux", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg"}, "/home/u", "/cfg"},
		{"linux relative xdg ignored", "linux", map[string]string{"HOME": "/home/u", "XDG_CONFIG_HOME": "cfg"}, "/home/u", filepath.Join("/home/u", ".config")},
		{"linux nothing", "linux", map[string]string{}, "", ""},
		{"darwin keeps ~/.config", "darwin", map[string]string{"HOME": "/Users/u"}, "/Users/u", filepath.Join("/Users/u", ".config")},
		{"windows profile and appdata", "windows", map[string]string{"USERPROFILE": `C:\Users\u`, "APPDATA": `C:\Users\u\AppData\Roaming`, "HOME": "/ignored"},
			`C:\Users\u`, `C:\Users\u\AppData\Roaming`},
		{"windows xdg wins", "windows", map[string]string{"USERPROFILE": `C:\Users\u`, "APPDATA": `C:\A`, "XDG_CONFIG_HOME": `D:\cfg`}, `C:\Users\u`, `D:\cfg`},
		{"windows unix-style xdg is not absolute", "windows", map[string]string{"USERPROFILE": `C:\Users\u`, "APPDATA": `C:\A`, "XDG_CONFIG_HOME": `cfg`}, `C:\Users\u`, `C:\A`},
		{"windows homedrive", "windows", map[string]string{"HOMEDRIVE": `C:`, "HOMEPATH": `\Users\u`}, `C:\Users\u`, filepath.Join(`C:\Users\u`, ".config")},
		{"windows HOME last", "windows", map[string]string{"HOME": `C:\msys\home\u`}, `C:\msys\home\u`, filepath.Join(`C:\msys\home\u`, ".config")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			getenv := func(k string) string { return tt.env[k] }
			if got := Home(tt.goos, getenv); got != tt.home {
				t.Errorf("Home = %q, want %q", got, tt.home)
			}
			if got := ConfigHome(tt.goos, getenv); got != tt.conf {
				t.Errorf("ConfigHome = %q, want %q", got, tt.conf)
			}
		})
	}
}

func TestStateHome(t *testing.T) {
	tests := []struct {
		name, goos string
		env        map[string]string
		want       string
	}{
		{"linux", "linux", map[string]string{"HOME": "/home/u"}, filepath.Join("/home/u", ".local", "state")},
		{"linux xdg", "linux", map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/st"}, "/st"},
		{"linux relative xdg ignored", "linux", map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "st"}, filepath.Join("/home/u", ".local", "state")},
		{"linux nothing", "linux", map[string]string{}, ""},
		{"windows local appdata", "windows", map[string]string{"USERPROFILE": `C:\Users\u`, "LOCALAPPDATA": `C:\Users\u\AppData\Local`}, `C:\Users\u\AppData\Local`},
		{"windows profile only", "windows", map[string]string{"USERPROFILE": `C:\Users\u`}, filepath.Join(`C:\Users\u`, ".local", "state")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StateHome(tt.goos, func(k string) string { return tt.env[k] }); got != tt.want {
				t.Errorf("StateHome = %q, want %q", got, tt.want)
			}
		})
	}
}
