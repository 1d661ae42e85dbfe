package master

import "testing"

// TestStateSentence: an explanation of a job that waits for nothing says
// its state as English does.
func TestStateSentence(t *testing.T) {
	for _, c := range []struct{ state, want string }{
		{"failed", "It failed"},
		{"killed", "It was killed"},
		{"completed", "It completed"},
		{"queued", "It is queued"},
	} {
		t.Run(c.state, func(t *testing.T) {
			if got := stateSentence(c.state); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
