package referencetest_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/partnercommerce/conformance/reference/referencetest"
)

func TestDiskCutsAWriteWhereTheSpaceEnds(t *testing.T) {
	t.Parallel()
	for _, whole := range []bool{false, true} {
		dir := t.TempDir()
		d := referencetest.NewDisk(dir, 100)
		if whole {
			d.WholeWrites()
		}
		f, err := d.Open(filepath.Join(dir, "journal"), os.O_RDWR|os.O_CREATE, 0o600)
		require.NoError(t, err)
		n, err := f.WriteAt(make([]byte, 60), 0)
		require.NoError(t, err)
		assert.Equal(t, 60, n)
		// A filler takes 30 bytes: 10 are left.
		require.NoError(t, os.WriteFile(filepath.Join(dir, "filler"), make([]byte, 30), 0o600))
		n, err = f.WriteAt([]byte("0123456789abcdef"), 56) // 4 bytes over, 12 past the end
		require.ErrorIs(t, err, syscall.ENOSPC)
		info, serr := f.Stat()
		require.NoError(t, serr)
		if whole {
			assert.Zero(t, n, "a whole write or nothing")
			assert.Equal(t, int64(60), info.Size())
		} else {
			assert.Equal(t, 14, n, "cut where the space ends")
			assert.Equal(t, int64(70), info.Size())
		}
		n, err = f.WriteAt([]byte("over"), 0)
		require.NoError(t, err, "writing over a file's bytes takes no space")
		assert.Equal(t, 4, n)

		require.NoError(t, os.Remove(filepath.Join(dir, "filler")))
		require.NoError(t, f.Truncate(50))
		free, err := d.Free()
		require.NoError(t, err)
		assert.Equal(t, int64(50), free, "deleting and truncating free space")
		require.NoError(t, d.SetFree(0))
		_, err = f.WriteAt([]byte("x"), 50)
		require.ErrorIs(t, err, syscall.ENOSPC, "full")
		require.NoError(t, d.SetFree(1))
		_, err = f.WriteAt([]byte("x"), 50)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	_, err := referencetest.NewDisk(t.TempDir(), 1).Open("/etc/hostname", os.O_RDONLY, 0)
	require.Error(t, err, "a file off the disk")
}
