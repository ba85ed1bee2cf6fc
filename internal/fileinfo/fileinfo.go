// Package fileinfo names files and sizes in the messages that refuse an input: what a file that
// is not regular is ("a named pipe"), and a size limit in the largest binary unit that divides
// it ("16 MiB"). The scenario reader and the result readers refuse the same inputs in the same
// words.
package fileinfo

import (
	"io/fs"
	"strconv"
)

// Kind names what a file of mode m is when it is not a regular file.
func Kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file (mode " + m.String() + ")"
}

// Size prints n bytes exactly, in the largest binary unit that divides it (1 MiB, 64 MiB), or in
// bytes.
func Size(n int64) string {
	for _, u := range []struct {
		name  string
		bytes int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.bytes && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + " " + u.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
