// Package junit writes the JUnit XML that Jenkins, GitLab and GitHub read:
// suites of test cases, each passed, skipped (one <skipped message>), failed
// (<failure message type> with the text of the failure as its body) or in
// error (<error>), with properties and system-out. The conformance suite and
// the generated mode (and the load tester's thresholds) each describe their
// run as a Report and write it here.
package junit

import (
	"encoding/xml"
	"fmt"
	"io"
)

// Report is the <testsuites> element: Write counts its tests.
type Report struct {
	XMLName  xml.Name `xml:"testsuites"`
	Name     string   `xml:"name,attr,omitempty"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Skipped  int      `xml:"skipped,attr"`
	Time     string   `xml:"time,attr,omitempty"`
	Suites   []Suite  `xml:"testsuite"`
}

// Suite is one <testsuite>: Write counts its tests.
type Suite struct {
	Name       string      `xml:"name,attr"`
	Tests      int         `xml:"tests,attr"`
	Failures   int         `xml:"failures,attr"`
	Errors     int         `xml:"errors,attr"`
	Skipped    int         `xml:"skipped,attr"`
	Time       string      `xml:"time,attr"`
	Timestamp  string      `xml:"timestamp,attr,omitempty"`
	File       string      `xml:"file,attr,omitempty"`
	Properties *Properties `xml:"properties,omitempty"`
	Cases      []Case      `xml:"testcase"`
}

// Case is one <testcase>: passed unless it has Skipped, Failure or Error.
type Case struct {
	Name       string      `xml:"name,attr"`
	Classname  string      `xml:"classname,attr"`
	File       string      `xml:"file,attr,omitempty"`
	Line       int         `xml:"line,attr,omitempty"`
	Time       string      `xml:"time,attr,omitempty"`
	Properties *Properties `xml:"properties,omitempty"`
	Skipped    *Skipped    `xml:"skipped,omitempty"`
	Failure    *Failure    `xml:"failure,omitempty"`
	Error      *Failure    `xml:"error,omitempty"`
	SystemOut  string      `xml:"system-out,omitempty"`
}

// Properties are the <properties> of a suite or a case.
type Properties struct {
	Property []Property `xml:"property"`
}

// Property is a name and a value.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Skipped says why a case did not run.
type Skipped struct {
	Message string `xml:"message,attr"`
}

// Failure is a failed case (or one in error): its message in one line, the
// whole text in its body.
type Failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// Seconds is a duration in seconds as the time attributes write it.
func Seconds(s float64) string { return fmt.Sprintf("%.3f", s) }

// Write counts the cases of each suite, and of the report, by outcome and
// writes the report, indented, after the XML header.
func Write(w io.Writer, r Report) error {
	r.Tests, r.Failures, r.Errors, r.Skipped = 0, 0, 0, 0
	for i := range r.Suites {
		s := &r.Suites[i]
		s.Tests, s.Failures, s.Errors, s.Skipped = len(s.Cases), 0, 0, 0
		for _, c := range s.Cases {
			switch {
			case c.Failure != nil:
				s.Failures++
			case c.Error != nil:
				s.Errors++
			case c.Skipped != nil:
				s.Skipped++
			}
		}
		r.Tests += s.Tests
		r.Failures += s.Failures
		r.Errors += s.Errors
		r.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(r); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
