// Command pgstrom-bench is pg_strom's benchmark: it loads the W1 datasets,
// SSB's tables and TPC-H's into PostgreSQL (load) and times the same
// queries with plain PostgreSQL and with pg_strom, checking that every mode
// returns the same result (run).
//
//	pgstrom-bench load [-scale 1.0] [-sf 1] [-tpch-sf 1] [-workers N] [-tables w1_narrow,w1_wide,ssb,tpch,ssb_partitioned,tpch_partitioned]
//	pgstrom-bench run  [-tables ssb] [-runs 3] [-json out.json] [-png out.png] [-plans plans.txt] [-link-gbps GB/s]
//	pgstrom-bench sql  [-tables tpch] [-queries Q9]
//
// The connection comes from the PG* environment variables (or -dsn).  run
// measures the host-to-device link with pgstrom.gpu_link_bandwidth() for
// the '% link' column, unless -link-gbps gives it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// errFailures marks a run that finished but had failing queries.
var errFailures = errors.New("some queries failed")

func usage(w io.Writer) {
	fmt.Fprintln(w, `usage: pgstrom-bench load|run|sql [flags]   (pgstrom-bench STEP -h lists the flags)
  load  create the datasets (idempotent, resumable), VACUUM FREEZE ANALYZE, prewarm
  run   time every query in every mode, check that the modes agree, print the table
  sql   print the text of the queries run would time (no connection)`)
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	step := args[0]
	if step != "load" && step != "run" && step != "sql" {
		usage(stderr)
		return 2
	}
	cfg, err := parseConfig(step, args[1:], stdout, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "pgstrom-bench %s: %v\n", step, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	switch step {
	case "load":
		err = Load(ctx, cfg)
	case "sql":
		err = PrintSQL(stdout, cfg)
	default:
		_, err = Run(ctx, cfg)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pgstrom-bench %s: %v\n", step, err)
		return 1
	}
	return 0
}
