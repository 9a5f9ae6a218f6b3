//go:build !linux

package kafkajvm

func syncAll() {}
