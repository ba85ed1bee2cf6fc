//go:build !unix

package results

import (
	"errors"
	"os"
)

// noFollow is 0 where open(2) has no O_NOFOLLOW; O_EXCL alone refuses a symbolic link.
const noFollow = 0

// errLocked is returned by openLock for a lock file that exists.
var errLocked = errors.New("locked")

// staleHint tells a refused writer what to do when the holder is gone.
const staleHint = "; if it is no longer running, remove " + LockFile

// openLock creates the lock file at path exclusively.
func openLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil, errLocked
	}
	return f, err
}

// closeLock closes the lock's file.
func closeLock(f *os.File) { f.Close() }
