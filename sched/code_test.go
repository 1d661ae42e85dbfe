package sched

import "testing"

// TestPendingCode: a backfill head with no reservation is not called
// reserved; every other pending job keeps its reason's name.
func TestPendingCode(t *testing.T) {
	tests := []struct {
		name string
		p    Pending
		want string
	}{
		{"reserved with a start", Pending{Reason: ReasonReserved, At: 600}, "reserved"},
		{"reserved at time 0", Pending{Reason: ReasonReserved, At: 0}, "reserved"},
		{"head with no start: never", Pending{Reason: ReasonReserved, At: Never}, CodeNoReservation},
		{"head with no start: unknown", Pending{Reason: ReasonReserved, At: -1}, CodeNoReservation},
		{"conservative with no start", Pending{Reason: ReasonReserved, At: Never, Queued: true}, CodeNoReservation},
		{"no capacity keeps its name", Pending{Reason: ReasonNoCapacity, At: -1}, "no_capacity"},
		{"would delay keeps its name", Pending{Reason: ReasonWouldDelay, At: Never}, "would_delay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Code(); got != tt.want {
				t.Errorf("Code() = %q, want %q", got, tt.want)
			}
		})
	}
}
