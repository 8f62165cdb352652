package main

import "testing"

func TestParseGPUSettings(t *testing.T) {
	got, err := parseGPUSettings("pg_strom.gpu_tuple_cost=0, pg_strom.gpu_operator_cost=0.0001")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != [2]string{"pg_strom.gpu_tuple_cost", "0"} ||
		got[1] != [2]string{"pg_strom.gpu_operator_cost", "0.0001"} {
		t.Fatalf("parsed %v", got)
	}
	if got, err := parseGPUSettings("enable_hashjoin=off"); err != nil || got[0] != [2]string{"enable_hashjoin", "off"} {
		t.Fatalf("enable_hashjoin=off: %v, %v", got, err)
	}
	for _, bad := range []string{"work_mem=1GB", "enable_x=1;RESET ALL", "pg_strom.enabled", "pg_strom.x=1;DROP TABLE t", "pg_strom.x='a b'"} {
		if _, err := parseGPUSettings(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSettingsForAddsGPUSettingsToTheGPUModeOnly(t *testing.T) {
	cfg := &Config{GPUSettings: [][2]string{{"pg_strom.gpu_tuple_cost", "0"}}}
	for _, m := range Modes {
		s := settingsFor(m, cfg)
		last := s[len(s)-1]
		if m.GPU != (last == [2]string{"pg_strom.gpu_tuple_cost", "0"}) {
			t.Errorf("mode %s: settings %v", m.Key, s)
		}
	}
}
