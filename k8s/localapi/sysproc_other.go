//go:build !linux

package localapi

import "syscall"

// dieWithParent: only Linux has a parent-death signal; elsewhere a killed
// test binary leaves its server to the test's cleanup.
func dieWithParent(a *syscall.SysProcAttr) *syscall.SysProcAttr { return a }
