package record

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRestrictCatalog(t *testing.T) {
	t.Parallel()
	cat := &Catalog{Products: []Product{{ID: 1, SubCategory: "prabayar"}, {ID: 2, SubCategory: "paket-data"}, {ID: 3, SubCategory: "paket-data"}},
		SubCategories: []string{"prabayar", "paket-data"}}
	got, err := cat.Restrict(nil)
	require.NoError(t, err)
	assert.Same(t, cat, got)
	got, err = cat.Restrict([]string{"paket-data"})
	require.NoError(t, err)
	assert.Len(t, got.Products, 2)
	assert.Equal(t, []string{"paket-data"}, got.SubCategories)
	got, err = cat.Restrict([]string{"1", "3"})
	require.NoError(t, err)
	assert.Len(t, got.Products, 2)
	_, err = cat.Restrict([]string{"99"})
	assert.Error(t, err)
}
