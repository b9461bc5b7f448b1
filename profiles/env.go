package profiles

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
)

// reference is a value's ${NAME}; a name is letters, digits and _, not
// starting with a digit, as a shell's.
var (
	reference = regexp.MustCompile(`\$\{([^}]*)\}`)
	envName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// ExpandEnv replaces each ${NAME} in the string values of p by the
// variable NAME of getenv, so that a profile can be committed while its
// secrets stay in the CI's secret store:
//
//	secret_key: ${PARTNER_SECRET_KEY}
//
// A variable that is not set, or empty, is an error naming it and the key
// that wants it: a run never sends an empty secret. So is a "${" that does
// not start a reference to a variable. Text around a reference is kept
// ("Bearer ${TOKEN}"), and a value without "${" is left as it is.
func (p *Profile) ExpandEnv(getenv func(string) string) error {
	return expandStrings(reflect.ValueOf(p).Elem(), "", getenv)
}

// expandStrings expands the string fields of v, a struct, and of the
// structs and slices it holds; path is v's key in the profile.
func expandStrings(v reflect.Value, path string, getenv func(string) string) error {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		return expandStrings(v.Elem(), path, getenv)
	case reflect.Slice:
		for i := range v.Len() {
			if err := expandStrings(v.Index(i), fmt.Sprintf("%s[%d]", path, i), getenv); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
			if path != "" {
				key = path + "." + key
			}
			if err := expandStrings(v.Field(i), key, getenv); err != nil {
				return err
			}
		}
	case reflect.String:
		s, err := expandValue(v.String(), getenv)
		if err != nil {
			return fmt.Errorf("profile: %s: %w", path, err)
		}
		v.SetString(s)
	}
	return nil
}

// expandValue replaces the references of s.
func expandValue(s string, getenv func(string) string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var err error
	out := reference.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		val := getenv(name)
		switch {
		case err != nil:
		case !envName.MatchString(name):
			err = fmt.Errorf("%s is not a reference to an environment variable: write ${NAME}, NAME of letters, digits and _", ref)
		case val == "":
			err = fmt.Errorf("%s: the environment variable %s is not set, or is empty; set it (from the CI's secret store, for a secret) or write the value itself", ref, name)
		}
		return val
	})
	if err == nil && strings.Contains(reference.ReplaceAllString(s, ""), "${") {
		err = fmt.Errorf("a \"${\" without its \"}\": write ${NAME} for the environment variable NAME")
	}
	return out, err
}
