package cli

import "testing"

func TestExportTitle(t *testing.T) {
	tests := []struct{ name, head, want string }{
		{"the export's head", "# The jobs submitted to this cluster from 2026-11-28 17:59:40 to 2026-11-28 18:41:06, with its pools,\n# projects ...\n",
			"the cluster's jobs submitted from 2026-11-28 17:59:40 to 2026-11-28 18:41:06"},
		{"no such line", "pools: []\n", "the cluster's history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := exportTitle([]byte(tt.head)); got != tt.want {
				t.Errorf("exportTitle = %q, want %q", got, tt.want)
			}
		})
	}
}
