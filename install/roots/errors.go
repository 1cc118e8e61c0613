package roots

import (
	"strings"

	"github.com/skillpm/skillpm/pkg/errdef"
)

// ErrInvalidTarget means a Target names what the hosts table does not
// have: an unknown host or scope, or project roots of a host that reads
// none. The message is the table's; this only marks it as the target's
// fault.
var ErrInvalidTarget = errdef.New(errdef.Usage, "invalid target")

// invalid marks err as ErrInvalidTarget without changing its message:
// the target is to be fixed, whatever the class of what it tripped over.
func invalid(err error) error { return errdef.Mark(ErrInvalidTarget, err) }

// SeveralHostsError means no host was named and skills are installed for
// several hosts, so the default host cannot be chosen.
type SeveralHostsError struct {
	// Hosts are the ids of the hosts holding skills, sorted.
	Hosts []string
}

func (e *SeveralHostsError) Error() string {
	return "several hosts hold skills: " + strings.Join(e.Hosts, ", ")
}

// Class is errdef.Usage: the request must name a host.
func (e *SeveralHostsError) Class() errdef.Class { return errdef.Usage }
