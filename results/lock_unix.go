//go:build unix

package results

import (
	"errors"
	"os"
	"syscall"
)

// noFollow makes open(2) refuse a symbolic link in the last element of a path.
const noFollow = syscall.O_NOFOLLOW

// errLocked is returned by openLock for a lock another open file holds.
var errLocked = errors.New("locked")

// staleHint is what a refused writer may do about a lock whose holder is gone: nothing, on Unix.
const staleHint = ""

// openLock opens the lock file at path (never through a symbolic link) and takes flock(2) on it
// without waiting.
func openLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|noFollow, 0o644)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}

// closeLock drops the lock and closes its file.
func closeLock(f *os.File) {
	_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}
