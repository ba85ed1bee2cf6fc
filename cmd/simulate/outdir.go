package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/overloadsim/overloadsim/results"
)

// held are the output folders' locks this process holds, by folder: released when the command
// returns (run), and before a second signal exits at once.
var held struct {
	sync.Mutex
	locks map[string]*heldLock
}

// heldLock is an output folder's lock, and whether this command created the folder: a folder
// it created and left empty is removed with the lock, so a refused command leaves none behind.
type heldLock struct {
	dir     string
	lock    *results.DirLock
	created bool
}

// release releases the lock and removes the folder if this command created it and it is empty.
func (h *heldLock) release() {
	_ = h.lock.Release()
	if h.created {
		_ = os.Remove(h.dir) // fails, harmlessly, when the folder is not empty
	}
}

// prepareOut makes dir ready to receive a command's result before any long work starts. It
// refuses a folder that holds files no overloadsim result lists (results.CheckOutDir: nothing
// but what a manifest lists is ever removed) and a folder another simulate is writing (its lock,
// results.LockDir, naming the holder); it takes the folder's lock, held until the command
// returns, and checks that the folder can be written.
func prepareOut(dir string) error {
	if err := results.CheckOutDir(dir); err != nil {
		return usageErrorf("--out: %w", err)
	}
	_, statErr := os.Stat(dir)
	created := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %w", dir, err)
	}
	key, err := results.ResolvePath(dir)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", dir, err)
	}
	held.Lock()
	defer held.Unlock()
	if held.locks[key] == nil {
		l, err := results.LockDir(dir, holder())
		if err != nil {
			if created {
				_ = os.Remove(dir)
			}
			if errors.Is(err, results.ErrInUse) {
				return usageErrorf("--out: %w", err)
			}
			return err
		}
		if held.locks == nil {
			held.locks = map[string]*heldLock{}
		}
		held.locks[key] = &heldLock{dir: dir, lock: l, created: created}
	}
	// Again under the lock: another writer may have changed the folder before we held it.
	if err := results.CheckOutDir(dir); err != nil {
		return usageErrorf("--out: %w", err)
	}
	return checkWritable(dir, true)
}

// lockResult takes the lock of a result folder that a command draws figures or a report into,
// held until the command returns: a folder another simulate is writing is refused (exit 2),
// naming the holder.
func lockResult(dir string) error {
	key, err := results.ResolvePath(dir)
	if err != nil {
		return err
	}
	held.Lock()
	defer held.Unlock()
	if held.locks[key] != nil {
		return nil
	}
	l, err := results.LockDir(dir, holder())
	if err != nil {
		if errors.Is(err, results.ErrInUse) {
			return usageErrorf("%w", err)
		}
		return err
	}
	if held.locks == nil {
		held.locks = map[string]*heldLock{}
	}
	held.locks[key] = &heldLock{dir: dir, lock: l}
	return nil
}

// holder says who this process is, for the lock it takes: pid, command line and since when.
func holder() string {
	args := strings.Join(os.Args[1:], " ")
	if v := os.Getenv("SIMULATE_CHILD_ARGS"); v != "" { // a test's child process: its command
		args = v
	}
	return fmt.Sprintf("pid %d, simulate %s, since %s", os.Getpid(), args, time.Now().UTC().Format(time.RFC3339))
}

// releaseOut releases the lock of dir, if held.
func releaseOut(dir string) {
	key, err := results.ResolvePath(dir)
	if err != nil {
		return
	}
	held.Lock()
	defer held.Unlock()
	if l := held.locks[key]; l != nil {
		l.release()
		delete(held.locks, key)
	}
}

// releaseAll releases every output folder's lock this process holds.
func releaseAll() {
	held.Lock()
	defer held.Unlock()
	for key, l := range held.locks {
		l.release()
		delete(held.locks, key)
	}
}
