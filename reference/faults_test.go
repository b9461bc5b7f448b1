package reference

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAFaultIsOneEntry adds one declaration to the table of faults and
// finds the fault listed with its line, switchable by name (its policy
// bent), and among the faults that change an answer's shape, which the
// judges' tests read (httpapitest.ShapeFaults).
func TestAFaultIsOneEntry(t *testing.T) {
	t.Parallel()
	const name Fault = "page-size-of-seven"
	table := append(slices.Clone(faultTable),
		rule(name, "pages by 7 at most", func(p *policy) { p.maxPageSize = 7 }).shapeAt("/data/pagination"))

	assert.Equal(t, name, table.All()[len(table)-1], "listed, after the others")
	spec, ok := table.Spec(name)
	require.True(t, ok)
	assert.Equal(t, "pages by 7 at most", spec.Line)
	assert.Equal(t, LayerRule, spec.Layer)

	faults, err := table.Parse("message-typo, " + string(name))
	require.NoError(t, err, "switchable by name")
	assert.Equal(t, []Fault{FaultMessageTypo, name}, faults)
	assert.Equal(t, 7, table.policy(faults).maxPageSize, "its policy is bent")
	assert.Equal(t, documentPolicy().maxPageSize, table.policy([]Fault{FaultMessageTypo}).maxPageSize)

	assert.Equal(t, "/data/pagination", table.Shapes()[name], "in the list of shape faults")
	_, err = faultTable.Parse(string(name))
	require.ErrorIs(t, err, errUnknownFault, "the reference's own table does not hold it")
}

// TestFaultTable checks the reference's declarations: every fault once,
// with its line and a layer, a rule fault with the policy it bends and no
// other; and the shape faults the judges' tests run.
func TestFaultTable(t *testing.T) {
	t.Parallel()
	seen := map[Fault]bool{}
	for _, s := range faultTable {
		assert.False(t, seen[s.Fault], "%s is declared twice", s.Fault)
		seen[s.Fault] = true
		assert.NotEmpty(t, s.Line, s.Fault)
		assert.Equal(t, s.Layer == LayerRule, s.bend != nil, "%s: a rule fault bends the policy, no other does", s.Fault)
		assert.Contains(t, []Layer{LayerRule, LayerWire, LayerRequest}, s.Layer, s.Fault)
		assert.Equal(t, s.Line, s.Fault.Describe())
	}
	assert.Len(t, faultTable, 56)
	assert.Equal(t, map[Fault]string{
		FaultProductWithoutLogo:    "/data/products/0/operator/logo",
		FaultCustomerIDAsString:    "/data/customer/id",
		FaultTrxNumberWithoutSlash: "/data/transaction/transaction_number",
		FaultErrorsAsText:          "",
	}, Faults().Shapes())
}
