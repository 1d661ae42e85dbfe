package agent

import "strconv"

// ShimCommand is what a task shim's command line says of it, as another
// agent process reads it from /proc/PID/cmdline: an agent that takes a
// node over on a host where an earlier agent's shims still run finds
// them by it (agentd/strays.go).
type ShimCommand struct {
	// AgentPID is the agent that started the shim (ShimDrainArg); 0
	// when the command line does not say.
	AgentPID int
	// FenceFile is the fence file in the starting agent's work
	// directory (ShimFenceArg), Task the attempt's TaskID.String();
	// both "" for a shim started without a fence.
	FenceFile, Task string
	ExitFile        string
}

// ParseShimCommand reads a shim's argv (argv[0] the binary, argv[1]
// ShimArg); ok is false for any other command line.
func ParseShimCommand(argv []string) (c ShimCommand, ok bool) {
	if len(argv) < 3 || argv[1] != ShimArg {
		return c, false
	}
	args := argv[2:]
	if len(args) >= 2 && args[0] == ShimDrainArg {
		pid, err := strconv.Atoi(args[1])
		if err != nil {
			return c, false
		}
		c.AgentPID, args = pid, args[2:]
		if len(args) >= 3 && args[0] == ShimOutputArg {
			args = args[3:]
		}
	}
	if len(args) >= 4 && args[0] == ShimFenceArg {
		c.FenceFile, c.Task, args = args[1], args[2], args[4:]
	}
	if len(args) < 2 || args[0] == "" {
		return ShimCommand{}, false
	}
	c.ExitFile = args[0]
	return c, true
}
