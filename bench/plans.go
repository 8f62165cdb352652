package main

import (
	"fmt"
	"io"
	"strings"
)

// WritePlans writes the EXPLAIN (COSTS OFF) plan of every query in every
// mode, so a reader sees which runs used the GPU.
func WritePlans(w io.Writer, rep *Report) error {
	var b strings.Builder
	settings := map[string]string{}
	for _, m := range rep.Modes {
		settings[m.Key] = strings.Join(m.Settings, " ")
	}
	for _, r := range rep.Results {
		fmt.Fprintf(&b, "==== %s on %s\n%s\n\n", r.Query, r.Table, r.SQL)
		for _, m := range r.Modes {
			fmt.Fprintf(&b, "-- mode %s (%s): used GPU: %s\n", m.Mode, settings[m.Mode], yesNo(m.UsedGPU))
			if m.Plan == "" {
				b.WriteString("(no plan)\n")
			} else {
				b.WriteString(m.Plan + "\n")
			}
			if m.Error != "" {
				fmt.Fprintf(&b, "ERROR: %s\n", m.Error)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
