package webtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// browserNames are the names chromedp's own lookup tries on Linux.
var browserNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
	"headless_shell", "headless-shell", "chrome"}

// ChromePath finds the browser: $ALLOT_CHROME, else the first of the
// usual Chrome and Chromium names on PATH.
func ChromePath() (string, error) {
	if p := os.Getenv("ALLOT_CHROME"); p != "" {
		found, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("ALLOT_CHROME=%s is not an executable: %w", p, err)
		}
		return found, nil
	}
	for _, n := range browserNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no Chromium found: none of " + strings.Join(browserNames, ", ") +
		" is on PATH and ALLOT_CHROME is not set; install chromium (apt-get install -y chromium) " +
		"or set ALLOT_CHROME to a Chrome or Chromium binary")
}
