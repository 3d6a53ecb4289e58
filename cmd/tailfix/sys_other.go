//go:build !linux

package main

import "syscall"

// growPipe leaves the pipe's buffer as the system made it: only Linux lets
// a reader grow it.
func growPipe(any) {}

// childAttr puts run's child in a process group of its own. Only Linux can
// have it ended when tailfix dies first.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
