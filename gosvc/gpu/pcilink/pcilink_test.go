package pcilink

import (
	"os"
	"path/filepath"
	"testing"
)

func fakeDevice(t *testing.T, root, busID, speed, width string) {
	t.Helper()
	dir := filepath.Join(root, busID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if speed != "" {
		os.WriteFile(filepath.Join(dir, "current_link_speed"), []byte(speed+"\n"), 0o644)
	}
	if width != "" {
		os.WriteFile(filepath.Join(dir, "current_link_width"), []byte(width+"\n"), 0o644)
	}
}

func TestDescribe(t *testing.T) {
	root := t.TempDir()
	fakeDevice(t, root, "0000:3b:00.0", "32.0 GT/s PCIe", "16")
	fakeDevice(t, root, "0000:af:00.0", "8 GT/s", "8")
	fakeDevice(t, root, "0000:01:00.0", "Unknown", "0")
	fakeDevice(t, root, "0000:02:00.0", "16.0 GT/s PCIe", "")

	cases := map[string]string{
		"0000:3B:00.0": "PCIe 32.0 GT/s x16", // CUDA reports upper case; sysfs is lower
		"0000:af:00.0": "PCIe 8 GT/s x8",
		"0000:01:00.0": Unknown,
		"0000:02:00.0": Unknown, // width missing
		"0000:99:00.0": Unknown, // no such device
	}
	for bus, want := range cases {
		if got := Describe(root, bus); got != want {
			t.Errorf("Describe(%s) = %q, want %q", bus, got, want)
		}
	}
}
