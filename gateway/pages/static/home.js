"use strict";
// The home page needs nothing beyond the shared navigation (common.js); kept so every page loads its own script.
