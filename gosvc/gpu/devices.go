package gpu

import (
	"fmt"
	"strings"

	"gorgonia.org/cu"

	"github.com/pgstrom-go/pg_strom/gosvc/control"
	"github.com/pgstrom-go/pg_strom/gosvc/gpu/pcilink"
)

// DriverVersion is cuDriverGetVersion, e.g. 12080 for CUDA 12.8.
func DriverVersion() (int, error) {
	v := cu.Version()
	if v < 0 {
		return 0, fmt.Errorf("cuDriverGetVersion failed")
	}
	return v, nil
}

// Devices lists every CUDA device with the attributes the supervisor
// publishes.
func Devices() ([]control.DeviceInfo, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return nil, fmt.Errorf("cuDeviceGetCount: %w", err)
	}
	devs := make([]control.DeviceInfo, 0, n)
	for i := 0; i < n; i++ {
		d, err := describe(i)
		if err != nil {
			return nil, fmt.Errorf("device %d: %w", i, err)
		}
		devs = append(devs, d)
	}
	return devs, nil
}

func describe(index int) (control.DeviceInfo, error) {
	dev, err := cu.GetDevice(index)
	if err != nil {
		return control.DeviceInfo{}, fmt.Errorf("cuDeviceGet: %w", err)
	}
	info := control.DeviceInfo{Index: index}
	if info.Name, err = dev.Name(); err != nil {
		return info, fmt.Errorf("cuDeviceGetName: %w", err)
	}
	total, err := dev.TotalMem()
	if err != nil {
		return info, fmt.Errorf("cuDeviceTotalMem: %w", err)
	}
	info.TotalMemory = uint64(total)
	attrs := []struct {
		attr cu.DeviceAttribute
		dst  *int
		name string
	}{
		{cu.ComputeCapabilityMajor, &info.CCMajor, "compute capability major"},
		{cu.ComputeCapabilityMinor, &info.CCMinor, "compute capability minor"},
		{cu.MultiprocessorCount, &info.Multiprocessors, "multiprocessor count"},
	}
	for _, a := range attrs {
		if *a.dst, err = dev.Attribute(a.attr); err != nil {
			return info, fmt.Errorf("cuDeviceGetAttribute(%s): %w", a.name, err)
		}
	}
	busID, err := pciBusID(dev)
	if err != nil {
		return info, err
	}
	info.PCIBusID = strings.ToLower(busID)
	info.PCIeLink = pcilink.Describe(pcilink.SysfsRoot, info.PCIBusID)
	return info, nil
}
