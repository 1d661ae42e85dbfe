package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/allot-sched/allot/client"
)

// watch runs render every interval until Ctrl-C, SIGTERM or the end of
// the command's context, which end it cleanly (nil). On a terminal each
// answer is redrawn in place; elsewhere (a pipe, a log) an answer is
// printed only when it differs from the last, after a blank line, so that
// a log of the queue holds its changes and nothing else. A master that
// does not answer, or fails, is retried; a refusal (4xx other than 429)
// ends the watch, since asking again gets the same answer.
func watch(cmd *cobra.Command, every time.Duration, render func(context.Context, io.Writer) error) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out := cmd.OutOrStdout()
	tty := isTerminal(out)
	var last []byte
	for {
		var buf bytes.Buffer
		err := render(ctx, &buf)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			var ce *client.Error
			if errors.As(err, &ce) && ce.Status >= 400 && ce.Status < 500 && ce.Status != http.StatusTooManyRequests {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "allot: %v (trying again in %s)\n", err, every)
		case tty:
			fmt.Fprintf(out, "\033[H\033[2J%s  every %s; Ctrl-C stops\n\n%s", time.Now().Format(time.TimeOnly), every, buf.Bytes())
		case !bytes.Equal(buf.Bytes(), last):
			if last != nil {
				fmt.Fprintln(out)
			}
			out.Write(buf.Bytes())
			last = buf.Bytes()
		}
		t := time.NewTimer(every)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
