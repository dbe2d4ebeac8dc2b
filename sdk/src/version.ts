/** The SDK's own version, equal to sdk/package.json's (a unit test holds them together). */
export const SDK_VERSION = '0.2.0';
