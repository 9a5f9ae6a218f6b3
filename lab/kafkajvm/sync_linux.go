package kafkajvm

import "golang.org/x/sys/unix"

func syncAll() { unix.Sync() }
