// Package lockfile keeps two processes off one directory: Acquire takes
// an exclusive flock(2) on a file in it and writes the holder's pid there,
// so that the second process can refuse at once and name the first.
//
// The kernel drops the lock when the holder exits, however it exits, so a
// lock file left behind by a crash never blocks a restart; the pid in it
// is only what the last holder wrote, read for the message.
package lockfile
