// The documentation's own examples (API-FACTS.md), present in the emulator's data so
// that commands copied from the docs and README work against it unchanged.

export const DOC_PLAN_ID = '0x57b2059e526841b3dfd964144513359c9fcfd6d91040b6c47f589c1e032b6bf7';
export const DOC_SENDER = '0xe42fD8a58A82fDF624A8a94dA03a0e44F9934Dff';
export const DOC_RECEIVER = '0xB2e9F6F9414ea12A33302923A55b9B4Cf99CCD90';

export const DOC_SHORT_URL = {
  path: 'f9yth',
  name: 'Facebook banner',
  planId: DOC_PLAN_ID,
  createdAt: 1574954504,
  updatedAt: 1574954504,
  params: {
    callbackSuccess: 'https://www.google.com/',
    callbackError: 'https://www.google.com/',
    extra: { banner: 'BR69', traffic: 'facebook' },
  },
  link: 'https://8pay.me/f9yth',
};

/** Stored as documented, id included: that id is not the sha256 of this JSON (API-FACTS.md). */
export const DOC_NOTIFICATION = {
  id: '5ccf8bdc7707a8effa371d01452644d3a388b975290b968874d0a44ec0219226',
  type: 'one-time',
  event: 'Payment',
  timestamp: 1585220116,
  transactionHash: '0xb0f21bf5d722d981330d45d8625568cd0b356e8c7c464857131a6ebf99eadf80',
  transactionStatus: 'confirmed',
  data: {
    sender: DOC_SENDER,
    description: 'Ebook',
    token: '8PAY',
    category: 'Shop',
    tag: 'ebook_859294',
    receivers: [{ user: DOC_RECEIVER, amount: '5', fee: '0.05' }],
  },
  extra: { banner: 'BR69', traffic: 'facebook' },
};
