# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
