package localapi

import "syscall"

// dieWithParent makes the child die with the test binary, even one that
// is killed, so that no server outlives its test.
func dieWithParent(a *syscall.SysProcAttr) *syscall.SysProcAttr {
	a.Pdeathsig = syscall.SIGKILL
	return a
}
