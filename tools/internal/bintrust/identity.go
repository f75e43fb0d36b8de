package bintrust

import (
	"io/fs"
	"syscall"
)

// identity tells a file's contents apart without reading them: a write
// changes the size, the modification time or (which no unprivileged
// process can set back) the change time; a replacement, the inode.
type identity struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64
}

func identityOf(fi fs.FileInfo) identity {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return identity{}
	}
	return identity{dev: st.Dev, ino: st.Ino, size: st.Size, mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}
}

// ownerOf is the uid that owns a file; -1 where the system does not say.
func ownerOf(_ string, fi fs.FileInfo) int {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1
	}
	return int(st.Uid)
}
