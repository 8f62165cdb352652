// Package pcilink reads a PCI device's current link speed and width from
// sysfs.  It is pure Go (no CUDA), so it is tested on any machine.
package pcilink

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SysfsRoot is where Linux lists PCI devices.
const SysfsRoot = "/sys/bus/pci/devices"

// Unknown is reported when the link cannot be read.
const Unknown = "unknown"

// Describe returns the link of the PCI device busID (e.g. "0000:3B:00.0"; case
// does not matter) as "PCIe 32.0 GT/s x16", or Unknown when sysfs does not
// say.  root is normally SysfsRoot.
func Describe(root, busID string) string {
	dir := filepath.Join(root, strings.ToLower(busID))
	speed, err := readAttr(dir, "current_link_speed")
	if err != nil {
		return Unknown
	}
	width, err := readAttr(dir, "current_link_width")
	if err != nil {
		return Unknown
	}
	// The kernel writes "32.0 GT/s PCIe" (newer) or "8 GT/s" (older); keep
	// the number and unit only.
	f := strings.Fields(speed)
	if len(f) < 2 || f[0] == "Unknown" || width == "0" {
		return Unknown
	}
	return fmt.Sprintf("PCIe %s %s x%s", f[0], f[1], width)
}

func readAttr(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "", fmt.Errorf("%s/%s is empty", dir, name)
	}
	return s, nil
}
