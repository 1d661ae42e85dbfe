package jobfile

import (
	"strings"
	"testing"
)

// TestParseShellScript: a batch script handed to allot submit, as sbatch
// takes one, is told for what it is and how to run it, not reported as a
// broken YAML file at its first command; a job file with a comment is
// read as before.
func TestParseShellScript(t *testing.T) {
	tests := []struct {
		name, file, data string
		says             []string // empty: parses
	}{
		{"a bash script", "/tmp/train.sh", "#!/bin/bash\n#SBATCH -G 1\n#SBATCH -t 10\necho hi\n",
			[]string{"/tmp/train.sh: looks like a shell script (#!/bin/bash)", "entrypoint: bash train.sh",
				"-G GPUS, -t TIME", "expected a mapping"}},
		{"#SBATCH lines without #!", "run.sbatch", "#SBATCH --gres=gpu:2\npython train.py\n",
			[]string{"looks like a shell script (#SBATCH lines)", "{name: run, entrypoint: bash run.sbatch"}},
		{"from stdin", "-", "#!/bin/sh\necho hi\n", []string{"entrypoint: bash job.sh"}},
		{"a job file with a comment", "ok.yaml", "# a job\nname: ok\nentrypoint: echo hi\nresources: {slots: 1}\n", nil},
		{"a broken job file", "bad.yaml", "name: bad\nentrypont: echo hi\n", []string{"bad.yaml:2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.file, []byte(tt.data))
			if len(tt.says) == 0 {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Parse: no error")
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q\nwant it to say %q", err, s)
				}
			}
			if tt.file == "bad.yaml" && strings.Contains(err.Error(), "shell script") {
				t.Errorf("a YAML job file called a shell script: %v", err)
			}
		})
	}
}
