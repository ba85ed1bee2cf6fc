package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// LockFile names the lock an output folder's writer holds (LockDir).
const LockFile = ".overloadsim.lock"

// ErrInUse is returned (wrapped) by LockDir for a folder another writer holds.
var ErrInUse = errors.New("is in use")

// maxHolderBytes bounds what is read of a lock's holder.
const maxHolderBytes = 4096

// DirLock is an output folder's lock, held by one writer at a time.
type DirLock struct {
	f    *os.File
	path string
}

// LockDir takes dir's lock (LockFile, created if needed) for one writer and writes holder (who
// holds it: pid, command, since when) into it. A folder another writer holds is refused with
// ErrInUse and what that writer wrote. On Unix the lock is flock(2) on the file, which the
// kernel drops when its holder exits however it exits: a lock file left by a killed writer is
// taken over, never waited for. Elsewhere the file is created exclusively, and one left by a
// killed writer must be removed by hand (the error says so).
func LockDir(dir, holder string) (*DirLock, error) {
	path := filepath.Join(dir, LockFile)
	for range 8 {
		f, err := openLock(path)
		if err != nil {
			if errors.Is(err, errLocked) {
				return nil, fmt.Errorf("%s %w by another simulate (%s): wait for it to finish, or choose another folder%s", dir, ErrInUse, lockHolder(path), staleHint)
			}
			return nil, fmt.Errorf("locking %s: %w", dir, PathlessError(err))
		}
		// The file may have been released and removed between our open and our lock: then the
		// lock is on a file no other writer will see; take it again.
		st, err1 := f.Stat()
		cur, err2 := os.Lstat(path)
		if err1 != nil || err2 != nil || !os.SameFile(st, cur) {
			closeLock(f)
			continue
		}
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(holder), 0)
		}
		return &DirLock{f: f, path: path}, nil
	}
	return nil, fmt.Errorf("locking %s: its lock file keeps changing", dir)
}

// lockHolder says who holds the lock at path, as it wrote itself there.
func lockHolder(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "holder unknown"
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxHolderBytes))
	if s := strings.TrimSpace(string(b)); s != "" {
		return strings.ToValidUTF8(s, "?")
	}
	return "holder unknown"
}

// Release removes the lock file and drops the lock. It may be called more than once.
func (l *DirLock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path) // while still held: no other writer holds a removed file
	closeLock(l.f)
	l.f = nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		err = os.Remove(l.path) // where an open file cannot be removed
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}
