package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/allot-sched/allot/lockfile"
)

// DataLockFile is the file in a data directory that allot master and
// allot dev lock while they use the directory.
const DataLockFile = "allot.lock"

// lockDataDir keeps a second master or dev cluster off a data directory
// in use: two of them would share the SQLite database, the admin token
// and the agents' work directories. It refuses at once, naming the
// process that holds the directory, before anything is started.
func lockDataDir(data string) (*lockfile.Lock, error) {
	l, err := lockfile.Acquire(filepath.Join(data, DataLockFile))
	var held *lockfile.HeldError
	if errors.As(err, &held) {
		who := "another process"
		if held.PID > 0 {
			who = fmt.Sprintf("process %d", held.PID)
		}
		return nil, fmt.Errorf("--data %s: the data directory is in use by %s (an allot master or allot dev; %s is locked): stop it first, or give another --data",
			data, who, held.Path)
	}
	return l, err
}
