// Package cli parses the command lines of the project's commands the same
// way: flags may follow the positional arguments, as in
// "conformance features/payments.feature:37 --strict"; -h and --help print
// the whole help; a bad flag says what is wrong, the usage line and where
// the help is, in three lines instead of the whole help.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
)

// UsageError is a bad command line: the flag package's error, the
// command's usage line and a pointer to --help.
type UsageError struct {
	Err   error
	Usage string // the usage line, "usage: conformance [flags] [FILE[:LINE] ...]"
	Name  string // the command, "conformance"
}

func (e *UsageError) Error() string {
	return fmt.Sprintf("%v\n%s\nsee %s --help for every flag", e.Err, e.Usage, e.Name)
}

func (e *UsageError) Unwrap() error { return e.Err }

// Parse parses args with fs and returns the positional arguments, wherever
// they stand among the flags; after "--" everything is positional. With -h
// or --help it calls fs.Usage (the whole help) and returns flag.ErrHelp;
// a bad flag is a *UsageError naming usage and the command name.
func Parse(fs *flag.FlagSet, args []string, name, usage string) ([]string, error) {
	out, help := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	defer func() { fs.SetOutput(out); fs.Usage = help }()
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				help()
				return nil, err
			}
			return nil, &UsageError{Err: err, Usage: usage, Name: name}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
