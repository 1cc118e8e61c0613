package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/skillpm/skillpm/hosts"
	"github.com/skillpm/skillpm/install"
	"github.com/skillpm/skillpm/pkg/skill"
)

// ValidateRequest is a check of skill directories against the skill
// format.
type ValidateRequest struct {
	// Dirs are the skill directories, or with Recursive the directories
	// searched for skills.
	Dirs []string
	// Recursive validates every skill found below each of Dirs.
	Recursive bool
	// Lenient reports as errors only what makes a skill unusable; the
	// default is strict, exactly the rules publish applies.
	Lenient bool
	// KnownTools are the tool names tools_required may name; nil means the
	// default one.
	KnownTools *skill.KnownTools
	// Host checks the skills also as that host loads them: for GAIA its
	// loader's refusals (skill.Options.GaiaLoader), which install for
	// GAIA applies too. Every other host reads the format alone. ""
	// checks the format alone. It is looked up in the hosts table of
	// the process (hosts.ProcessEnv: the built-in rows and the user's).
	Host string
}

// ValidateResult is what a validation found. Its counts are
// skill.Summarize(Results); the mode is the request's (Lenient).
type ValidateResult struct {
	// Results are the skills, in the order of the request's directories.
	Results []skill.Result
}

// Validate checks the skills in r.Dirs (below them with Recursive)
// strictly, as publish does, or leniently. Skills with errors are in the
// result, not an error: the error is for the request (a directory to
// search that does not exist is ErrInvalidRequest).
func Validate(ctx context.Context, r ValidateRequest) (*ValidateResult, error) {
	opts := skill.Options{Mode: skill.Strict, Publish: true, KnownTools: r.KnownTools}
	if r.Lenient {
		opts = skill.Options{Mode: skill.Lenient, KnownTools: r.KnownTools}
	}
	if r.Host != "" {
		env, err := hosts.ProcessEnv()
		if err != nil {
			return nil, err
		}
		if _, err := env.Table().Get(r.Host); err != nil {
			return nil, err
		}
		opts.GaiaLoader = r.Host == string(install.HostGaia)
	}
	var dirs []string
	for _, d := range r.Dirs {
		if !r.Recursive {
			// A path that is not there is a mistyped request (usage), not
			// a skill that fails validation.
			if _, err := os.Stat(d); errors.Is(err, fs.ErrNotExist) {
				return nil, invalid(fmt.Errorf("%s does not exist: nothing to validate (name a skill directory)", d))
			}
			dirs = append(dirs, d)
			continue
		}
		found, err := skill.FindSkills(ctx, d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, invalid(fmt.Errorf("%s does not exist: nothing to validate there yet (name a directory that holds skills)", d))
			}
			return nil, fmt.Errorf("searching %s for skills: %w", d, err)
		}
		dirs = append(dirs, found...)
	}
	return &ValidateResult{Results: skill.LoadSet(ctx, dirs, opts)}, nil
}
