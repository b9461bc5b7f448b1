// Command reference is the fixture server: it serves reference.Answer on
// /answer, and says where it listens as cmd/reference does.
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"fixture/reference"
	"fixture/reference/httpapi"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address")
	flag.String("log-level", "info", "ignored")
	flag.Parse()
	if !reference.Ready() {
		fmt.Fprintln(os.Stderr, "reference: not ready")
		os.Exit(1)
	}
	_ = reference.Join(reference.Noted, "")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		time.Sleep(httpapi.Slow * time.Minute)
		_, _ = w.Write([]byte(strconv.Itoa(reference.Answer())))
	})}
	go func() { <-ctx.Done(); _ = srv.Close() }()
	_ = srv.Serve(ln)
}
