package mutation

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"gopkg.in/yaml.v3"
)

// Class is what a surviving mutant is, once a person has looked at it.
type Class string

// The classes of survivors (docs/mutation.md explains each).
const (
	// Equivalent: no client can tell the mutant from the reference.
	Equivalent Class = "equivalent"
	// OpenChoice: the mutant makes another choice where the API document
	// leaves one open (docs/reference-choices.md lists it).
	OpenChoice Class = "open-choice"
	// LoadOnly: only concurrent requests tell it apart; the load tester's
	// job, and the concurrency probe's.
	LoadOnly Class = "load-only"
	// Missed: a rule of the document the run did not check; a check was
	// added, after which the mutant is killed.
	Missed Class = "missed"
)

// Classes lists the classes in the order of the report.
var Classes = []Class{Equivalent, OpenChoice, LoadOnly, Missed}

// Classification is what a person decided about one survivor, keyed by
// the mutant's identity so that it holds across line shifts and reruns.
type Classification struct {
	Key `yaml:",inline"`
	// ID repeats Key.ID() for people grepping; when given it must match.
	ID    string `yaml:"id,omitempty"`
	Class Class  `yaml:"class"`
	// Why says, for every class, why the mutant is what Class says.
	Why string `yaml:"why"`
	// Sentence quotes the API document where it leaves the choice open
	// (open-choice).
	Sentence string `yaml:"sentence,omitempty"`
	// Load says how the load tester caught it (load-only).
	Load string `yaml:"load,omitempty"`
	// Check names the check added for the rule the run missed (missed).
	Check string `yaml:"check,omitempty"`
}

// Classifications is the classification file: mutation/survivors.yaml.
type Classifications struct {
	list  []Classification
	byKey map[Key]int
}

// ReadClassifications reads and checks a classification file; a missing
// file is an empty one.
func ReadClassifications(path string) (*Classifications, error) {
	data, err := os.ReadFile(path) //nolint:gosec // the operator's --classes file
	if errors.Is(err, os.ErrNotExist) {
		return ParseClassifications(nil)
	}
	if err != nil {
		return nil, err
	}
	c, err := ParseClassifications(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseClassifications reads a classification file's YAML: a list of
// Classification. Each entry must name its class with what that class
// needs (a reason; the sentence of an open choice; how the load tester
// caught a load-only mutant; the check added for a missed rule), and no key
// may appear twice.
func ParseClassifications(data []byte) (*Classifications, error) {
	c := &Classifications{byKey: map[Key]int{}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c.list); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	for i, e := range c.list {
		if err := e.check(); err != nil {
			return nil, fmt.Errorf("entry %d (%s %s): %w", i+1, e.File, e.Func, err)
		}
		k := e.normal()
		if j, dup := c.byKey[k]; dup {
			return nil, fmt.Errorf("entry %d (%s %s) repeats entry %d", i+1, e.File, e.Func, j+1)
		}
		c.byKey[k] = i
	}
	return c, nil
}

func (e Classification) check() error {
	if e.File == "" || e.Func == "" || e.Original == "" {
		return errors.New("file, func and original are required")
	}
	if e.ID != "" && e.ID != e.Key.ID() {
		return fmt.Errorf("id %s is not the key's (%s): a snippet was mistyped, or the id belongs to another mutant", e.ID, e.Key.ID())
	}
	if e.Why == "" {
		return errors.New("why is required")
	}
	switch e.Class {
	case Equivalent:
	case OpenChoice:
		if e.Sentence == "" {
			return errors.New("an open choice quotes the document's sentence (sentence)")
		}
	case LoadOnly:
		if e.Load == "" {
			return errors.New("a load-only mutant says how the load tester caught it (load)")
		}
	case Missed:
		if e.Check == "" {
			return errors.New("a missed rule names the check added for it (check)")
		}
	default:
		return fmt.Errorf("class %q is none of %v", e.Class, Classes)
	}
	return nil
}

// Find is the classification of the mutant with key k.
func (c *Classifications) Find(k Key) (Classification, bool) {
	i, ok := c.byKey[k.normal()]
	if !ok {
		return Classification{}, false
	}
	return c.list[i], true
}

// All is every classification, in the file's order.
func (c *Classifications) All() []Classification { return c.list }
