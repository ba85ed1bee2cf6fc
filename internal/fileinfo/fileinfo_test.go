package fileinfo

import (
	"io/fs"
	"testing"
)

func TestKind(t *testing.T) {
	for _, tc := range []struct {
		mode fs.FileMode
		want string
	}{
		{fs.ModeDir | 0o755, "a directory"},
		{fs.ModeNamedPipe | 0o644, "a named pipe"},
		{fs.ModeSocket, "a socket"},
		{fs.ModeDevice | fs.ModeCharDevice, "a character device"},
		{fs.ModeDevice, "a block device"},
		{fs.ModeSymlink | 0o777, "a symbolic link"},
		{fs.ModeIrregular, "not a regular file (mode ?---------)"},
	} {
		if got := Kind(tc.mode); got != tc.want {
			t.Errorf("Kind(%v) = %q, want %q", tc.mode, got, tc.want)
		}
	}
}

func TestSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{1 << 20, "1 MiB"},
		{64 << 20, "64 MiB"},
		{1 << 30, "1 GiB"},
		{3 << 10, "3 KiB"},
		{1<<20 + 1, "1048577 bytes"},
		{0, "0 bytes"},
	} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
