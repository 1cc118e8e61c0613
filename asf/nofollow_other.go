//go:build !unix

package asf

// oNoFollow is 0 where open(2) has no O_NOFOLLOW; the Lstat checks before
// each open still refuse a link.
const oNoFollow = 0
