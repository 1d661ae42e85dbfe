package cli

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/allot-sched/allot/k8s/localapi"
)

// k8sDevPorts are allot k8s-dev's port flags: the loopback ports of its
// kube-apiserver and etcd, any free one by default, so that a kubeconfig
// or a firewall rule can name a fixed one.
type k8sDevPorts struct{ ports localapi.Ports }

func (p *k8sDevPorts) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.IntVar(&p.ports.API, "api-port", 0, "kube-apiserver's port on 127.0.0.1 (0: any free one)")
	fl.IntVar(&p.ports.Etcd, "etcd-port", 0, "etcd's client port on 127.0.0.1 (0: any free one)")
	fl.IntVar(&p.ports.EtcdPeer, "etcd-peer-port", 0, "etcd's peer port on 127.0.0.1 (0: any free one)")
}

// check refuses a port out of range, one given to two flags, and one
// that cannot be listened on now (in use, or privileged), naming the
// flag, before anything starts: the servers would fail with it in their
// logs, after up to a minute's wait.
func (p *k8sDevPorts) check() error {
	flags := []struct {
		name string
		port int
	}{{"--api-port", p.ports.API}, {"--etcd-port", p.ports.Etcd}, {"--etcd-peer-port", p.ports.EtcdPeer}}
	seen := map[int]string{}
	for _, f := range flags {
		switch {
		case f.port < 0 || f.port > 65535:
			return usageErrorf("%s %d: expected a port from 1 to 65535, or 0 for any free one", f.name, f.port)
		case f.port == 0:
			continue
		case seen[f.port] != "":
			return usageErrorf("%s %d: %s has the same port; expected different ones (0 for any free one)", f.name, f.port, seen[f.port])
		}
		seen[f.port] = f.name
		if err := portFree(f.name, f.port); err != nil {
			return err
		}
	}
	return nil
}

// portFree reports whether port can be listened on on 127.0.0.1 now.
func portFree(flag string, port int) error {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	ln, err := net.Listen("tcp", addr)
	switch {
	case err == nil:
		return ln.Close()
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("%s %d: %s is in use (another allot k8s-dev, kube-apiserver or etcd?): stop that process, "+
			"or pick another port with %s (0 for any free one): %w", flag, port, addr, flag, err)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("%s %d: cannot listen on %s without privileges (a port below 1024): pick one from 1024, "+
			"or 0 for any free one: %w", flag, port, addr, err)
	}
	return fmt.Errorf("%s %d: cannot listen on %s: %w", flag, port, addr, err)
}
