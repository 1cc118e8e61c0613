package config

import "github.com/skillpm/skillpm/pkg/errdef"

// ErrInvalid is wrapped by every error about the file's content.
var ErrInvalid = errdef.New(errdef.Usage, "invalid configuration")
