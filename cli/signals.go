package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/spf13/cobra"
)

// stopOnSignals is how the long-running commands (dev, master, agent,
// k8s, k8s-agent) stop: the first SIGINT or SIGTERM cancels the context
// it returns, for a graceful stop (tasks checkpointed, reports sent,
// the store closed), and a second exits at once with the status a shell
// gives a process the signal ended, after saying on stderr what a stop
// at once leaves behind (again). The stop function it returns must be
// called (deferred) when the command ends.
func stopOnSignals(cmd *cobra.Command, again string) (context.Context, func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	stderr := cmd.ErrOrStderr()
	ctx, stop := signalStops(cmd.Context(), sigs, func(sig os.Signal) {
		fmt.Fprintf(stderr, "%s: %v again: exiting at once; %s\n", cmd.CommandPath(), sig, again)
		os.Exit(signalExitCode(sig))
	})
	return ctx, func() {
		stop()
		signal.Stop(sigs)
	}
}

// signalStops stops a command on the signals that sigs receives: the
// first cancels the context it returns, which stops the command
// gracefully, and the second calls exit. The second is exit's, not the
// signal's default action (signal.Stop) once more: a process that a
// non-interactive shell starts in the background ("allot dev &" in a
// script) starts with SIGINT ignored, and Stop would restore that, so the
// second "kill -INT" would do nothing. The stop function it returns
// cancels the context and returns once it no longer reads sigs.
func signalStops(parent context.Context, sigs <-chan os.Signal, exit func(os.Signal)) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-sigs:
			cancel()
		case <-quit:
			return
		}
		select {
		case sig := <-sigs:
			exit(sig)
		case <-quit:
		}
	}()
	return ctx, sync.OnceFunc(func() {
		cancel()
		close(quit)
		<-done
	})
}

// signalExitCode is the status of a process ended by sig, as a shell
// reports it: 128 plus the signal's number (130 for SIGINT).
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return ExitError
}
