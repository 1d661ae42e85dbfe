package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseNvidiaSMI(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want []GPU
	}{
		{"eight H100", "" +
			"0, GPU-8a1b2c3d-1111-2222-3333-444455556666, NVIDIA H100 80GB HBM3, 81559 MiB\n" +
			"1, GPU-9b2c3d4e-1111-2222-3333-444455556666, NVIDIA H100 80GB HBM3, 81559 MiB\n",
			[]GPU{
				{Index: 0, UUID: "GPU-8a1b2c3d-1111-2222-3333-444455556666", Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559, Type: "h100"},
				{Index: 1, UUID: "GPU-9b2c3d4e-1111-2222-3333-444455556666", Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559, Type: "h100"},
			}},
		{"A100 PCIe", "0, GPU-a1, NVIDIA A100 80GB PCIe, 81920 MiB\n",
			[]GPU{{Index: 0, UUID: "GPU-a1", Name: "NVIDIA A100 80GB PCIe", MemoryMiB: 81920, Type: "a100"}}},
		{"A100 SXM", "3, GPU-a3, NVIDIA A100-SXM4-40GB, 40960 MiB",
			[]GPU{{Index: 3, UUID: "GPU-a3", Name: "NVIDIA A100-SXM4-40GB", MemoryMiB: 40960, Type: "a100"}}},
		{"H200", "0, GPU-h2, NVIDIA H200, 143771 MiB\n",
			[]GPU{{Index: 0, UUID: "GPU-h2", Name: "NVIDIA H200", MemoryMiB: 143771, Type: "h200"}}},
		{"RTX with CRLF and blank lines", "\r\n0, GPU-r0, NVIDIA GeForce RTX 4090, 24564 MiB\r\n\r\n1, GPU-r1, NVIDIA RTX A6000, 49140 MiB\r\n",
			[]GPU{
				{Index: 0, UUID: "GPU-r0", Name: "NVIDIA GeForce RTX 4090", MemoryMiB: 24564, Type: "rtx4090"},
				{Index: 1, UUID: "GPU-r1", Name: "NVIDIA RTX A6000", MemoryMiB: 49140, Type: "a6000"},
			}},
		{"nounits", "0, GPU-t, Tesla T4, 15360\n",
			[]GPU{{Index: 0, UUID: "GPU-t", Name: "Tesla T4", MemoryMiB: 15360, Type: "t4"}}},
		{"memory not available", "0, GPU-g, NVIDIA GH200 480GB, [N/A]\n",
			[]GPU{{Index: 0, UUID: "GPU-g", Name: "NVIDIA GH200 480GB", Type: "gh200"}}},
		{"name with a comma", "0, GPU-x, Acme Accel, rev 2, 1024 MiB\n",
			[]GPU{{Index: 0, UUID: "GPU-x", Name: "Acme Accel, rev 2", MemoryMiB: 1024, Type: "acme-accel-rev-2"}}},
		{"MIG uuid", "0, MIG-4f1e, NVIDIA A100-SXM4-80GB MIG 1g.10gb, 9728 MiB\n",
			[]GPU{{Index: 0, UUID: "MIG-4f1e", Name: "NVIDIA A100-SXM4-80GB MIG 1g.10gb", MemoryMiB: 9728, Type: "a100"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNvidiaSMI([]byte(tt.out))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestParseNvidiaSMIReal reads the output of a real H100 machine's
// nvidia-smi (driver 580.159.04), captured by scripts/gpu-check.
func TestParseNvidiaSMIReal(t *testing.T) {
	want := []GPU{{Index: 0, UUID: "GPU-45712bfa-cf27-ba9e-c064-d07c7612e7b2",
		Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559, Type: "h100"}}
	for _, file := range []string{"nvidia-smi-h100.csv", "nvidia-smi-h100-nounits.csv"} {
		t.Run(file, func(t *testing.T) {
			out, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ParseNvidiaSMI(out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestParseNvidiaSMIErrors(t *testing.T) {
	tests := []struct{ name, out, want string }{
		{"empty", "", "nvidia-smi listed no GPUs"},
		{"blank", "\n \n", "nvidia-smi listed no GPUs"},
		{"driver message", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
			"line 1: expected 4 comma-separated fields (index, uuid, name, memory.total), got 1"},
		{"too few fields", "0, GPU-a, 81559 MiB\n", "line 1: expected 4 comma-separated fields"},
		{"index not a number", "x, GPU-a, NVIDIA H100, 1 MiB\n", `line 1: index: expected an integer >= 0, got "x"`},
		{"negative index", "-1, GPU-a, NVIDIA H100, 1 MiB\n", `index: expected an integer >= 0, got "-1"`},
		{"empty uuid", "0, , NVIDIA H100, 1 MiB\n", `uuid: expected an id like GPU-8a1b..., got ""`},
		{"uuid not available", "0, [N/A], NVIDIA H100, 1 MiB\n", `uuid: expected an id like GPU-8a1b..., got "[N/A]"`},
		{"empty name", "0, GPU-a, , 1 MiB\n", "name: empty"},
		{"bad memory", "0, GPU-a, NVIDIA H100, 80 GB\n", `memory.total: expected MiB like "81559 MiB", got "80 GB"`},
		{"negative memory", "0, GPU-a, NVIDIA H100, -5 MiB\n", `memory.total: expected MiB`},
		{"header line", "index, uuid, name, memory.total [MiB]\n", `line 1: index: expected an integer >= 0, got "index"`},
		{"second line bad", "0, GPU-a, NVIDIA H100, 1 MiB\n1, GPU-b, NVIDIA H100\n", "line 2: expected 4 comma-separated fields"},
		{"repeated index", "0, GPU-a, NVIDIA H100, 1 MiB\n0, GPU-b, NVIDIA H100, 1 MiB\n", "line 2: index 0 repeats line 1"},
		{"repeated uuid", "0, GPU-a, NVIDIA H100, 1 MiB\n1, GPU-a, NVIDIA H100, 1 MiB\n", "line 2: uuid GPU-a repeats line 1"},
		{"not text", "0, GPU-\xff, NVIDIA H100, 1 MiB\n", "not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNvidiaSMI([]byte(tt.out))
			if err == nil {
				t.Fatalf("parsed %+v, want an error containing %q", got, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestGPUType(t *testing.T) {
	for name, want := range map[string]string{
		"NVIDIA H100 80GB HBM3":          "h100",
		"NVIDIA H100 PCIe":               "h100",
		"NVIDIA H100 NVL":                "h100",
		"NVIDIA H200":                    "h200",
		"NVIDIA A100-SXM4-80GB":          "a100",
		"NVIDIA A100 80GB PCIe":          "a100",
		"NVIDIA A10G":                    "a10g",
		"NVIDIA L40S":                    "l40s",
		"NVIDIA L4":                      "l4",
		"NVIDIA B200":                    "b200",
		"NVIDIA GH200 480GB":             "gh200",
		"Tesla V100-SXM2-16GB":           "v100",
		"Tesla T4":                       "t4",
		"NVIDIA GeForce RTX 4090":        "rtx4090",
		"NVIDIA GeForce RTX 3080 Ti":     "rtx3080ti",
		"NVIDIA RTX A6000":               "a6000",
		"Quadro RTX 8000":                "rtx8000",
		"NVIDIA RTX 6000 Ada Generation": "rtx6000ada",
		"NVIDIA GeForce GTX 1080":        "gtx1080",
		"NVIDIA TITAN RTX":               "titan-rtx",
		"Some Accelerator v2":            "some-accelerator-v2",
		"NVIDIA":                         "nvidia",
		"???":                            "unknown",
	} {
		if got := GPUType(name); got != want {
			t.Errorf("GPUType(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestFake(t *testing.T) {
	gpus := Fake(3, "H100")
	want := []GPU{
		{Index: 0, UUID: "GPU-fake-h100-0000", Name: "Fake H100", MemoryMiB: 81559, Type: "h100"},
		{Index: 1, UUID: "GPU-fake-h100-0001", Name: "Fake H100", MemoryMiB: 81559, Type: "h100"},
		{Index: 2, UUID: "GPU-fake-h100-0002", Name: "Fake H100", MemoryMiB: 81559, Type: "h100"},
	}
	if !reflect.DeepEqual(gpus, want) {
		t.Errorf("Fake(3, H100) = %+v", gpus)
	}
	if !reflect.DeepEqual(Fake(3, "H100"), gpus) {
		t.Error("Fake is not stable")
	}
	if g := Fake(1, ""); g[0].Type != "fake" || g[0].UUID != "GPU-fake-fake-0000" {
		t.Errorf("Fake(1, \"\") = %+v", g)
	}
	if g := Fake(1, "My Card!"); g[0].Type != "my-card" || g[0].MemoryMiB != 0 {
		t.Errorf("Fake(1, \"My Card!\") = %+v", g)
	}
	if len(Fake(0, "h100")) != 0 || len(Fake(-1, "h100")) != 0 {
		t.Error("Fake with n <= 0 is not empty")
	}
}

// fakeSMI puts an nvidia-smi script that runs body into an empty PATH.
func fakeSMI(t *testing.T, body string) {
	t.Helper()
	dir := t.TempDir()
	if body != "" {
		script := "#!/bin/sh\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
}

func TestDetect(t *testing.T) {
	t.Run("no nvidia-smi", func(t *testing.T) {
		fakeSMI(t, "")
		_, err := Detect(context.Background())
		if !errors.Is(err, ErrNoNvidiaSMI) {
			t.Errorf("Detect error = %v, want ErrNoNvidiaSMI", err)
		}
	})
	t.Run("two GPUs", func(t *testing.T) {
		fakeSMI(t, `[ "$1 $2" = "--query-gpu=index,uuid,name,memory.total --format=csv,noheader" ] || exit 2
echo "0, GPU-aa, NVIDIA H100 80GB HBM3, 81559 MiB"
echo "1, GPU-bb, NVIDIA H100 80GB HBM3, 81559 MiB"`)
		gpus, err := Detect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(gpus) != 2 || gpus[1].UUID != "GPU-bb" || gpus[1].Type != "h100" {
			t.Errorf("Detect = %+v", gpus)
		}
	})
	t.Run("driver failure", func(t *testing.T) {
		fakeSMI(t, `echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."; exit 9`)
		_, err := Detect(context.Background())
		if err == nil || errors.Is(err, ErrNoNvidiaSMI) || !strings.Contains(err.Error(), "couldn't communicate") ||
			!strings.Contains(err.Error(), "exit status 9") {
			t.Errorf("Detect error = %v", err)
		}
	})
	t.Run("malformed output", func(t *testing.T) {
		fakeSMI(t, `echo "garbage"`)
		_, err := Detect(context.Background())
		if err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("Detect error = %v", err)
		}
	})
}
